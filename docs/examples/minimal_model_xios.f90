! The minimal model written for XIOS (`use xios`): the same iodef.xml and the
! same minimal.nc as with `use foehn`. mpiexec -n 2 ./minimal_model_xios
program minimal_model_xios
  use mpi
  use xios
  implicit none
  integer, parameter :: ni = 8, nj_glo = 4, nsteps = 4
  integer :: ierr, comm, rank, nprocs, jbegin, nj, i, j, step
  real(8), allocatable :: lon(:), lat(:), tas(:,:)

  call xios_initialize("minimal", return_comm=comm)  ! starts MPI, reads iodef.xml
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  jbegin = rank * nj_glo / nprocs                    ! my rows: jbegin+1 .. jbegin+nj
  nj = (rank + 1) * nj_glo / nprocs - jbegin
  allocate(lon(ni), lat(nj), tas(ni, nj))
  lon = [(i * 45.0d0, i = 0, ni - 1)]
  lat = [(-67.5d0 + (jbegin + j) * 45.0d0, j = 0, nj - 1)]
  call xios_context_initialize("atm", comm)
  call xios_set_domain_attr("globe", ni_glo=ni, nj_glo=nj_glo, ibegin=0, ni=ni, jbegin=jbegin, nj=nj, &
                            lonvalue_1d=lon, latvalue_1d=lat)
  call xios_close_context_definition()
  do step = 1, nsteps
    call xios_update_calendar(step)
    tas = reshape([((273.0d0 + step + i + 10 * (jbegin + j), i = 0, ni - 1), j = 0, nj - 1)], [ni, nj])
    if (xios_field_is_active("tas", .true.)) call xios_send_field("tas", tas)
  end do
  call xios_context_finalize()
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()                               ! also MPI_Finalize: xios started MPI
end program minimal_model_xios
