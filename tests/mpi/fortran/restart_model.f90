! Exact restarts from Fortran (docs/restart.md): a model that runs global
! steps FIRST..LAST of the iodef.xml in its directory (whose start_date is
! that of step FIRST - 1) and calls the checkpoint after step CHECKPOINT
! (0: none), through module `foehn` (foehn_checkpoint) or `xios`
! (xios_checkpoint, foehn's extension). tests/python/test_restart.py runs
! it cut into segments and compares the files with an unbroken run.
!   mpiexec -n 2 ./restart_model foehn|xios FIRST LAST CHECKPOINT
program restart_model
  use mpi
  use foehn
  use xios, only: xios_initialize, xios_context_initialize, xios_set_domain_attr, xios_close_context_definition, &
                  xios_update_calendar, xios_send_field, xios_checkpoint, xios_context_finalize, xios_finalize
  implicit none
  integer, parameter :: ni = 6, nj_glo = 4
  integer :: ierr, comm, rank, nprocs, jbegin, nj, i, j, step, first, last, checkpoint
  character(len=16) :: api, arg
  real(8), allocatable :: lon(:), lat(:), t(:,:)
  type(foehn_context) :: ctx

  call get_command_argument(1, api)
  call get_command_argument(2, arg)
  read (arg, *) first
  call get_command_argument(3, arg)
  read (arg, *) last
  call get_command_argument(4, arg)
  read (arg, *) checkpoint
  if (api == "xios") then
    call xios_initialize("restart", return_comm=comm)
  else
    call MPI_Init(ierr)
    call foehn_init("restart", "iodef.xml", MPI_COMM_WORLD, comm)
  end if
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  jbegin = rank * nj_glo / nprocs
  nj = (rank + 1) * nj_glo / nprocs - jbegin
  allocate(lon(ni), lat(nj), t(ni, nj))
  lon = [(i * 60.0d0, i = 0, ni - 1)]
  lat = [(-60.0d0 + (jbegin + j) * 40.0d0, j = 0, nj - 1)]
  if (api == "xios") then
    call xios_context_initialize("rst", comm)
    call xios_set_domain_attr("dom", ni_glo=ni, nj_glo=nj_glo, ibegin=0, ni=ni, jbegin=jbegin, nj=nj, &
                              lonvalue_1d=lon, latvalue_1d=lat)
    call xios_close_context_definition()
  else
    call foehn_context_open("rst", comm, ctx)
    call foehn_set_domain_rectilinear(ctx, "dom", ni, nj_glo, 0, jbegin, lon, lat)
    call foehn_close_definition(ctx)
  end if
  do step = first, last
    ! The same values whatever the cut and the ranks: a function of the
    ! global step and point.
    t = reshape([((10 * sin(0.3d0 * i + 0.7d0 * (jbegin + j) + 0.37d0 * step), i = 0, ni - 1), j = 0, nj - 1)], &
                [ni, nj])
    if (api == "xios") then
      call xios_update_calendar(step - first + 1)
      call xios_send_field("t", t)
      if (step == checkpoint) call xios_checkpoint()
    else
      call foehn_update_calendar(ctx, step - first + 1)
      call foehn_write(ctx, "t", t)
      if (step == checkpoint) call foehn_checkpoint(ctx)
    end if
  end do
  if (api == "xios") then
    call xios_context_finalize()
    call MPI_Comm_free(comm, ierr)
    call xios_finalize()
  else
    call foehn_context_close(ctx)
    call foehn_finalize()
    call MPI_Comm_free(comm, ierr)
    call MPI_Finalize(ierr)
  end if
end program restart_model
